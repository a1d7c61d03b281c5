import { doctor, printDoctor } from '../doctor.js';
import { EXIT } from '../output.js';
import type { CommandContext } from './context.js';

/** wfctl doctor: each agent client's configuration checked; exits 9 when a problem is found. */
export async function doctorCommand(ctx: CommandContext, deploymentId: string | undefined, options: { client: string }): Promise<void> {
  const result = await doctor({ deploymentId, clients: options.client, service: ctx.service(), out: ctx.out });
  ctx.out.result(result, () => printDoctor(result, ctx.out));
  if (!result.ok) process.exitCode = EXIT.DOCTOR;
}
