// A third, small project: a titled session of a few turns, so the demo lists more than one kind of work.
import { hexId, SessionBuilder } from '../sessionBuilder.mjs';

export const CWD = '/home/dev/dotfiles';

function gitPrompt(ctx) {
  const s = new SessionBuilder({ id: hexId('demo:dotfiles:prompt', 16), cwd: CWD, startMs: ctx.now - 2 * 24 * 3_600_000, title: 'Git branch in the shell prompt' });
  s.user('Show the current git branch in my zsh prompt, but keep it fast in big repositories.');
  s.tool('read', { path: 'zsh/prompt.zsh' }, "PROMPT='%F{blue}%~%f %# '");
  s.say('`vcs_info` is built into zsh and only asks git for the branch, which stays fast in large repositories. I will enable it for git only.');
  s.tool('edit', { path: 'zsh/prompt.zsh', oldText: "PROMPT='%F{blue}%~%f %# '", newText: "autoload -Uz vcs_info\nzstyle ':vcs_info:*' enable git\nprecmd() { vcs_info }\nsetopt prompt_subst\nPROMPT='%F{blue}%~%f ${vcs_info_msg_0_} %# '" }, 'Applied 1 edit to zsh/prompt.zsh');
  s.bash('zsh -i -c "cd ~/projects/weather-cli && print -P \\"$PROMPT\\""', '~/projects/weather-cli (git)-[main]- %');
  s.say('The prompt now ends in `(git)-[main]-` inside a repository and stays as it was elsewhere.');
  ctx.session(s, { mtimeMs: s.time });
}

export const dotfiles = {
  cwd: CWD,
  write(ctx) {
    gitPrompt(ctx);
  },
};
