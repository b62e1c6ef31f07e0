/** Placeholder: built next (issue #19). */
export function JobDetailPage() {
  return <h1 className="text-xl font-semibold">JobDetail</h1>;
}
