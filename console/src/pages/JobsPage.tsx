/** Placeholder: built next (issue #19). */
export function JobsPage() {
  return <h1 className="text-xl font-semibold">Jobs</h1>;
}
