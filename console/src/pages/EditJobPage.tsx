/** Placeholder: built next (issue #19). */
export function EditJobPage() {
  return <h1 className="text-xl font-semibold">EditJob</h1>;
}
