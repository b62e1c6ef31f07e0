/** Placeholder: built next (issue #19). */
export function HealthPage() {
  return <h1 className="text-xl font-semibold">Health</h1>;
}
