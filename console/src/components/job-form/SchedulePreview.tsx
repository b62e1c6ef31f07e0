/**
 * The schedule's next occurrences as the server computes them (the scanner's own schedule code),
 * in the browser's zone and in the schedule's zone; a schedule the server refuses shows its
 * reason at the field it names (the form does that), and here when no field shows it.
 */
import { errorMessage } from '../../api/result.ts';
import { Time } from '../Time.tsx';
import { browserZone, formatInZone } from './zones.ts';

interface SchedulePreviewProps {
  /** Nothing to ask yet: the schedule is incomplete. */
  idle: boolean;
  loading: boolean;
  occurrences: string[] | undefined;
  error: unknown;
  /** The refusal is already shown at a field of the form. */
  errorShownAtField: boolean;
  zone: string;
}

export function SchedulePreview({ idle, loading, occurrences, error, errorShownAtField, zone }: SchedulePreviewProps) {
  let content: React.ReactNode;
  if (idle) content = <p className="text-slate-600">Complete the schedule to see when it fires.</p>;
  else if (error)
    content = (
      <p className="text-red-700">
        {errorShownAtField ? 'No occurrences: the schedule has an error (see above).' : errorMessage(error)}
      </p>
    );
  else if (loading || !occurrences) content = <p className="text-slate-600">Computing the next occurrences…</p>;
  else if (occurrences.length === 0) content = <p className="text-slate-600">This schedule has no occurrence left.</p>;
  else
    content = (
      <table className="w-full text-left">
        <thead>
          <tr className="text-xs text-slate-600">
            <th scope="col" className="py-1 font-medium">
              Your time ({browserZone()})
            </th>
            <th scope="col" className="py-1 font-medium">
              In {zone}
            </th>
          </tr>
        </thead>
        <tbody>
          {occurrences.map((iso) => (
            <tr key={iso}>
              <td className="py-0.5 pr-4">
                <Time iso={iso} />
              </td>
              <td className="py-0.5">{formatInZone(iso, zone, { weekday: true })}</td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  return (
    <section
      aria-labelledby="schedule-preview-title"
      className="mt-4 rounded border border-slate-200 bg-slate-50 p-3 text-sm"
    >
      <h3 id="schedule-preview-title" className="mb-1 font-medium">
        Next occurrences
      </h3>
      <div aria-live="polite">{content}</div>
    </section>
  );
}
