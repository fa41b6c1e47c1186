// The manifest's user-visible strings live in package.nls.json (VS Code substitutes every string
// that is exactly `%key%`); package.json holds only the references.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, unknown>;

const REF = /^%([\w.-]+)%$/;

interface Manifest {
  displayName: string;
  description: string;
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    configuration: { title: string; properties: Record<string, { description?: string; markdownDescription?: string }> };
    viewsContainers: Record<string, { id: string; title: string }[]>;
    views: Record<string, { id: string; name: string; contextualTitle?: string }[]>;
    submenus: { id: string; label: string }[];
    viewsWelcome: { view: string; contents: string }[];
    customEditors: { viewType: string; displayName: string }[];
  };
}

/** Every string in the manifest that is a `%key%` reference, with where it sits. */
function references(value: unknown, at = ''): { at: string; key: string }[] {
  if (typeof value === 'string') {
    const m = REF.exec(value);
    return m ? [{ at, key: m[1]! }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => references(v, `${at}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => references(v, at ? `${at}.${k}` : k));
  return [];
}

/** The user-visible strings of the manifest, each named by where it sits. */
function visibleStrings(): [string, string | undefined][] {
  const c = pkg.contributes;
  return [
    ['displayName', pkg.displayName],
    ['description', pkg.description],
    ...c.commands.flatMap((cmd): [string, string | undefined][] => [
      [`${cmd.command} title`, cmd.title],
      [`${cmd.command} category`, cmd.category],
    ]),
    ['configuration title', c.configuration.title],
    ...Object.entries(c.configuration.properties).map(([k, p]): [string, string | undefined] => [`${k} description`, p.markdownDescription ?? p.description]),
    ...Object.values(c.viewsContainers).flat().map((v): [string, string | undefined] => [`container ${v.id} title`, v.title]),
    ...Object.values(c.views).flat().flatMap((v): [string, string | undefined][] => [
      [`view ${v.id} name`, v.name],
      [`view ${v.id} contextualTitle`, v.contextualTitle],
    ]),
    ...c.submenus.map((s): [string, string | undefined] => [`submenu ${s.id} label`, s.label]),
    ...c.viewsWelcome.map((w): [string, string | undefined] => [`viewsWelcome ${w.view} contents`, w.contents]),
    ...c.customEditors.map((e): [string, string | undefined] => [`customEditor ${e.viewType} displayName`, e.displayName]),
  ];
}

test('every %key% in package.json resolves to a non-empty string in package.nls.json', () => {
  const refs = references(pkg);
  assert.ok(refs.length > 0, 'package.json references no strings');
  const unresolved = refs.filter(({ key }) => typeof nls[key] !== 'string' || (nls[key] as string).trim() === '');
  assert.deepEqual(unresolved, []);
});

test('package.nls.json holds no key that package.json does not use', () => {
  const used = new Set(references(pkg).map((r) => r.key));
  assert.deepEqual(Object.keys(nls).filter((k) => !used.has(k)), []);
});

test('no contributed command title or category, and no setting description, is a literal string', () => {
  const literal: string[] = [];
  for (const cmd of pkg.contributes.commands) {
    if (!REF.test(cmd.title)) literal.push(`${cmd.command} title: ${cmd.title}`);
    if (cmd.category !== undefined && !REF.test(cmd.category)) literal.push(`${cmd.command} category: ${cmd.category}`);
  }
  for (const [key, p] of Object.entries(pkg.contributes.configuration.properties)) {
    for (const d of [p.description, p.markdownDescription]) if (d !== undefined && !REF.test(d)) literal.push(`${key}: ${d}`);
  }
  assert.deepEqual(literal, []);
});

test('every setting has a description and every command a category', () => {
  for (const [key, p] of Object.entries(pkg.contributes.configuration.properties)) {
    assert.ok(p.markdownDescription ?? p.description, `${key} has no description`);
  }
  for (const cmd of pkg.contributes.commands) assert.ok(cmd.category, `${cmd.command} has no category`);
});

test('the other user-visible manifest strings (names, titles, labels, welcome text) are references too', () => {
  const literal = visibleStrings().filter(([, s]) => s !== undefined && !REF.test(s));
  assert.deepEqual(literal, []);
});
