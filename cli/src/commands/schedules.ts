/** `chronos schedules preview --cron … --tz …`: a schedule's next occurrences, before creating a job. */
import type { Command } from 'commander';
import { apiErrorOf, networkError } from '../../../client/src/errors.ts';
import { integer } from '../arguments.ts';
import { dataOf } from '../output.ts';
import { localTime } from '../time.ts';
import { contextOf } from './context.ts';
import { addScheduleOptions, type Schedule, type ScheduleFlags, scheduleOf } from './schedule-options.ts';

export function registerSchedules(program: Command): void {
  const schedules = program.command('schedules').description("preview a schedule's occurrences");
  addScheduleOptions(
    schedules
      .command('preview')
      .description('list when a schedule would fire (computed by the API, daylight-saving time included)')
      .option('--count <n>', 'how many occurrences, 1-100 (default 10)', integer)
      .option('--from <instant>', 'list those at or after this zoned ISO-8601 instant'),
  ).action(async (flags: ScheduleFlags & { count?: number; from?: string }, command: Command) => {
    const { out, client } = contextOf(command);
    const schedule = scheduleOf(flags, true) as Schedule;
    const api = await client();
    const answer = await settled(() =>
      api.http.POST('/v1/schedules/preview', {
        body: {
          schedule,
          ...(flags.count === undefined ? {} : { count: flags.count }),
          ...(flags.from === undefined ? {} : { from: flags.from }),
        },
      }),
    );
    out.result(answer, () =>
      answer.occurrences.length === 0 ? 'No occurrences.' : answer.occurrences.map((at) => localTime(at)).join('\n'),
    );
  });
}

/** The typed client has no wrapper for this route yet: its openapi-fetch client, errors as in dataOf. */
async function settled<T>(call: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: Awaited<ReturnType<typeof call>>;
  try {
    answer = await call();
  } catch (cause) {
    return dataOf<T>({ error: networkError(cause) });
  }
  if (answer.response.ok) return answer.data as T;
  return dataOf<T>({ error: apiErrorOf(answer.response, answer.error), response: answer.response });
}
