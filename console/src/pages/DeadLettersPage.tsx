/** Placeholder: built next (issue #19). */
export function DeadLettersPage() {
  return <h1 className="text-xl font-semibold">DeadLetters</h1>;
}
