import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dshGoldenHashes } from '../helpers/dshGolden';

// SHA-256 prefixes of the CLI `events` JSON · the CLI `context` JSON · the stats JSON, computed by
// the reader as merged from dsh-core (before the event store kept chunk events packed): the
// reader's memory layout may change, what its consumers see may not change by one byte. (A zstd
// form reads as its raw form, so its hashes are the raw ones whatever the framing.)
const GOLDEN: Record<string, string> = {
  'dsh-cancel-aborted.session.jsonl raw': 'ca58d90efd916cb4f3a4ff58 80232283808a11779fdabcfe c436ea17dce864a150cd0c79',
  'dsh-cancel-aborted.session.jsonl zstd/4': 'ca58d90efd916cb4f3a4ff58 80232283808a11779fdabcfe c436ea17dce864a150cd0c79',
  'dsh-cancel-aborted.session.jsonl zstd/1000': 'ca58d90efd916cb4f3a4ff58 80232283808a11779fdabcfe c436ea17dce864a150cd0c79',
  'dsh-cancel-aborted.session.jsonl raw interrupted': '5fbac969f02904e4112b1f86 873a3457e2b07130dfc1a881 2611acf98686bbac57a442f7',
  'dsh-cancel-aborted.session.jsonl raw torn': '67d9d1d7394a618636687a3f 80232283808a11779fdabcfe 494a3cfd3b6040651f84e8d0',
  'dsh-cancel-aborted.session.jsonl raw corrupt': 'f905502c147dfc47a98c6610 306231f08d62e9816d0583d2 1ce1ce96793b917f82be7003',
  'dsh-compaction-recovery.session.jsonl raw': 'cf709377a0e3092eaa718926 7b8a029ce0b611238b836a1d 7ab55f3b7f7877cce45251ef',
  'dsh-compaction-recovery.session.jsonl zstd/4': 'cf709377a0e3092eaa718926 7b8a029ce0b611238b836a1d 7ab55f3b7f7877cce45251ef',
  'dsh-compaction-recovery.session.jsonl zstd/1000': 'cf709377a0e3092eaa718926 7b8a029ce0b611238b836a1d 7ab55f3b7f7877cce45251ef',
  'dsh-compaction-recovery.session.jsonl raw interrupted': '9a800ae311024541e6ab595e 2fb91109e95420d544d0ce8b cb6f6a09e886ffe096ae40e3',
  'dsh-compaction-recovery.session.jsonl raw torn': 'ee2ec5706e2dee334c678626 7b8a029ce0b611238b836a1d 3d2019a81fafcc3631332cfd',
  'dsh-compaction-recovery.session.jsonl raw corrupt': '7c9a3eba2195229e818ba685 eba77402bd472f8809199941 f8dbdd00cfb64ccdd7154bf8',
  'dsh-interrupted-tool-outcome-unknown.session.jsonl raw': '62b57719f36b21d94cead1d6 fa67fdf0efff2eeca395da1d 7f7932ad689e2d087651178b',
  'dsh-interrupted-tool-outcome-unknown.session.jsonl zstd/4': '62b57719f36b21d94cead1d6 fa67fdf0efff2eeca395da1d 7f7932ad689e2d087651178b',
  'dsh-interrupted-tool-outcome-unknown.session.jsonl zstd/1000': '62b57719f36b21d94cead1d6 fa67fdf0efff2eeca395da1d 7f7932ad689e2d087651178b',
  'dsh-interrupted-tool-outcome-unknown.session.jsonl raw interrupted': '79e804fb1e568cd4ed9a47ec 8ac3c9de98fdf36fdee36369 3eef7d18f53ca6708c57bb51',
  'dsh-interrupted-tool-outcome-unknown.session.jsonl raw torn': '13d07e3984a4dc7f7d958ec9 fa67fdf0efff2eeca395da1d ef200c354c51ca6688c38361',
  'dsh-interrupted-tool-outcome-unknown.session.jsonl raw corrupt': 'a2773d832c335ffeaf12519b 98728d6f2e5d23f3dec2d6ff 769bcb9871593ca755d73704',
  'dsh-packed-chunks.session.jsonl raw': '24439069600a16c05fcc24dc 69172bc9453980819a5984ee ce761a153c49208f8a2f412a',
  'dsh-packed-chunks.session.jsonl zstd/4': '24439069600a16c05fcc24dc 69172bc9453980819a5984ee ce761a153c49208f8a2f412a',
  'dsh-packed-chunks.session.jsonl zstd/1000': '24439069600a16c05fcc24dc 69172bc9453980819a5984ee ce761a153c49208f8a2f412a',
  'dsh-packed-chunks.session.jsonl raw interrupted': 'd69fab2affa7b6225c4551ab 2de8e518170b379c203e933c dbd130d861f15042a8100138',
  'dsh-packed-chunks.session.jsonl raw torn': 'cfdbb80d5f68e980ed8c8bd5 69172bc9453980819a5984ee e8683906254b1017c2120501',
  'dsh-packed-chunks.session.jsonl raw corrupt': 'cba2f36434f3b7cb4a5250a9 ff9920994a388561c4a38339 a1e1c0033fb7a30121918c66',
  'dsh-subagent-child.session.jsonl raw': 'dadb2bc7de53ff0c6e7983d6 9c79074bc40524c99686889a 9039bbdc5c887e5d871ab149',
  'dsh-subagent-child.session.jsonl zstd/4': 'dadb2bc7de53ff0c6e7983d6 9c79074bc40524c99686889a 9039bbdc5c887e5d871ab149',
  'dsh-subagent-child.session.jsonl zstd/1000': 'dadb2bc7de53ff0c6e7983d6 9c79074bc40524c99686889a 9039bbdc5c887e5d871ab149',
  'dsh-subagent-child.session.jsonl raw interrupted': '517b19d0986eefd44ce60498 92d6da17d2ae0c1e91584b28 4b96238fc016c00df2a88ddf',
  'dsh-subagent-child.session.jsonl raw torn': 'e5e64af86bfce5d8590fa6cb 9c79074bc40524c99686889a 19859d9c02cff82ba9377411',
  'dsh-subagent-child.session.jsonl raw corrupt': 'f2b216048e927bc5bff1d62b 22241530dbf3a17839f7ebf4 950ff6c5b9c02fa7be2adb4d',
  'dsh-cancel-aborted.session.jsonl sqlite': 'c9305ca715aef87b2f2d7bed 80232283808a11779fdabcfe c436ea17dce864a150cd0c79',
  'dsh-compaction-recovery.session.jsonl sqlite': '2a732a4e31acb1d13bff33fa 7b8a029ce0b611238b836a1d 7ab55f3b7f7877cce45251ef',
  'dsh-interrupted-tool-outcome-unknown.session.jsonl sqlite': '3d5e63bdcdbba05f883cf8fc fa67fdf0efff2eeca395da1d 7f7932ad689e2d087651178b',
  'dsh-packed-chunks.session.jsonl sqlite': 'e27b28864a811de1a8d35aff 69172bc9453980819a5984ee ce761a153c49208f8a2f412a',
  'dsh-subagent-child.session.jsonl sqlite': 'd262335b9c3b50aa66510d2c 9c79074bc40524c99686889a 9039bbdc5c887e5d871ab149',
  'generated 8k zstd': 'bf367d42c89452b8d0f1e9c2 a0fc7e5327e9d7533e71295e f03d68537768e253f1cd2a6a',
  'generated 8k raw': 'bf367d42c89452b8d0f1e9c2 a0fc7e5327e9d7533e71295e f03d68537768e253f1cd2a6a',
};

test('events, context and stats JSON are byte-identical to the eager reader for every fixture in every form (raw, zstd, SQLite, damaged)', async () => {
  assert.deepEqual(await dshGoldenHashes(), GOLDEN);
});
