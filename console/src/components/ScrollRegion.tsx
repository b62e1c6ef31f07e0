import type { ReactNode } from 'react';

/**
 * A table wider than a narrow screen scrolls sideways. A keyboard user can scroll it only if the
 * region takes focus (WCAG 2.1.1; axe's scrollable-region-focusable), so it is a named, focusable
 * region rather than a bare overflow box.
 */
export function ScrollRegion({
  label,
  className,
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to be scrolled
    <section tabIndex={0} aria-label={label} className={`overflow-x-auto ${className ?? ''}`.trim()}>
      {children}
    </section>
  );
}
