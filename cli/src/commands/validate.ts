import { isOrAre, plural } from '../../../src/text.js';
import { checkDir, validate } from '../manifests.js';
import { CliError } from '../output.js';
import type { CommandContext } from './context.js';

/** wfctl validate: manifest files checked offline, with the service's own validator. */
export async function validateCommand(ctx: CommandContext, files: string[], options: { dir: string }): Promise<void> {
  const results = validate({ dir: checkDir(options.dir), files });
  const invalid = results.filter((r) => !r.valid);
  if (invalid.length > 0) {
    const lines = invalid.flatMap((r) => r.errors.map((e) => `${r.file}: ${e.path || '/'}: ${e.message} (${e.code})`));
    throw new CliError(
      'VALIDATION_ERROR',
      `${invalid.length} of ${plural(results.length, 'file')} ${isOrAre(invalid.length)} not valid:\n${lines.join('\n')}`,
      'Fix what each line names; docs/manifest.md explains every message.',
      { files: results },
    );
  }
  ctx.out.result({ files: results }, () => ctx.out.line(`${plural(results.length, 'file')} valid`));
}
