import { plural } from '../../../src/text.js';
import { checkDir, diff } from '../manifests.js';
import { EXIT } from '../output.js';
import type { CommandContext } from './context.js';

/** wfctl diff: what a push would change, each file against its workflow on the service. */
export async function diffCommand(ctx: CommandContext, files: string[], options: { dir: string; exitCode?: boolean }): Promise<void> {
  const { out } = ctx;
  const result = await diff({ api: ctx.api(), dir: checkDir(options.dir), files, out });
  out.result(result, () => {
    for (const f of result.files) {
      if (f.status === 'unchanged') continue;
      if (f.status === 'changed-on-service')
        out.line(`# ${f.file}: changed on the service since your last pull (you have ${f.localVersion}, it has ${f.serviceVersion})`);
      out.line(f.patch ?? '');
    }
    out.line(`${result.changed} of ${plural(result.files.length, 'file')} ${result.changed === 1 ? 'differs' : 'differ'} from the service`);
  });
  if (options.exitCode && result.changed > 0) process.exitCode = EXIT.FAILURE;
}
