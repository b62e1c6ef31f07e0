/** `chronos schedules preview --cron … --tz …`: a schedule's next occurrences, before creating a job. */
import type { Command } from 'commander';
import type { PreviewScheduleBody } from '../../../client/src/client.ts';
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
    const answer = dataOf(
      await api.schedules.preview({
        schedule,
        ...(flags.count === undefined ? {} : { count: flags.count }),
        ...(flags.from === undefined ? {} : { from: flags.from }),
      } as PreviewScheduleBody),
    );
    out.result(answer, () =>
      answer.occurrences.length === 0 ? 'No occurrences.' : answer.occurrences.map((at) => localTime(at)).join('\n'),
    );
  });
}
