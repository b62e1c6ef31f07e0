/** Placeholder: built next (issue #19). */
export function CreateJobPage() {
  return <h1 className="text-xl font-semibold">CreateJob</h1>;
}
