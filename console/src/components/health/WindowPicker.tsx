/** The window the health page looks back over (5m, 1h, 24h): a group of toggle buttons. */
export const WINDOWS = ['5m', '1h', '24h'] as const;
export type StatsWindow = (typeof WINDOWS)[number];

const LABELS: Record<StatsWindow, string> = { '5m': '5 minutes', '1h': '1 hour', '24h': '24 hours' };

export function WindowPicker({ value, onChange }: { value: StatsWindow; onChange: (next: StatsWindow) => void }) {
  return (
    <fieldset className="inline-flex overflow-hidden rounded border border-slate-300">
      <legend className="sr-only">Window</legend>
      {WINDOWS.map((window) => (
        <button
          key={window}
          type="button"
          aria-pressed={value === window}
          onClick={() => onChange(window)}
          className={`px-3 py-1 text-sm ${
            value === window ? 'bg-indigo-600 font-medium text-white' : 'bg-white hover:bg-slate-100'
          }`}
        >
          {LABELS[window]}
        </button>
      ))}
    </fieldset>
  );
}
