/**
 * Each priority lane's queues (issue #22: `lanes` of GET /v1/monitoring/system): every lane has its
 * own dispatch queue and dead-letter queue, so a backlog in one shows here and not in the others.
 * The top-level dispatch queue above is the normal lane's.
 */
import { type Lanes, PRIORITIES } from '@chronos/client';
import { ageText } from './age-text.ts';

const HEADERS = [
  'Lane',
  'Depth',
  'Released',
  'In flight',
  'Delayed',
  'Oldest message',
  'Dead letters',
  'Oldest dead letter',
];

export function LanesTable({ lanes }: { lanes: Lanes }) {
  return (
    <div className="mt-4 overflow-x-auto rounded border border-slate-200 bg-white" data-testid="lanes">
      <table className="w-full text-left text-sm">
        <caption className="px-3 pt-2 text-left text-sm font-semibold">Queues per priority lane</caption>
        <thead className="text-xs text-slate-600">
          <tr>
            {HEADERS.map((header) => (
              <th key={header} scope="col" className="px-3 py-1 font-medium whitespace-nowrap">
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {PRIORITIES.filter((lane) => lanes[lane]).map((lane) => {
            const { dispatchQueue: queue, deadLetterQueue: dlq } = lanes[lane];
            return (
              <tr key={lane} data-lane={lane} className="border-t border-slate-100">
                <th scope="row" className="px-3 py-1 font-medium">
                  {lane}
                </th>
                <td className="px-3 py-1 tabular-nums">{queue.depth}</td>
                <td className="px-3 py-1 tabular-nums">{queue.visible}</td>
                <td className="px-3 py-1 tabular-nums">{queue.inFlight}</td>
                <td className="px-3 py-1 tabular-nums">{queue.delayed}</td>
                <td className="px-3 py-1">{ageText(queue.oldestMessageAgeSeconds, queue.oldestMessageAge)}</td>
                <td className="px-3 py-1 tabular-nums">{dlq.depth}</td>
                <td className="px-3 py-1">{ageText(dlq.oldestMessageAgeSeconds, dlq.oldestMessageAge)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
