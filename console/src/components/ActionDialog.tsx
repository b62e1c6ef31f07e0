/**
 * A confirmation before an action that cannot be undone (cancel a job, re-drive runs): a Radix
 * dialog (focus kept inside, Escape closes, focus returns to the trigger) that says what will
 * happen and asks once.
 */
import * as Dialog from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';

interface ActionDialogProps {
  /** The button that opens the dialog. */
  trigger: ReactNode;
  title: string;
  description: ReactNode;
  /** The confirming button's label, e.g. "Cancel job". */
  confirm: string;
  onConfirm: () => void;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  destructive?: boolean;
}

export function ActionDialog({
  trigger,
  title,
  description,
  confirm,
  onConfirm,
  open,
  onOpenChange,
  destructive = false,
}: ActionDialogProps) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Trigger asChild>{trigger}</Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 bg-slate-900/40" />
        <Dialog.Content className="fixed top-1/3 left-1/2 w-[min(28rem,90vw)] -translate-x-1/2 rounded-lg border border-slate-200 bg-white p-5 shadow-lg">
          <Dialog.Title className="text-lg font-semibold">{title}</Dialog.Title>
          <Dialog.Description className="mt-2 text-sm text-slate-700">{description}</Dialog.Description>
          <div className="mt-5 flex justify-end gap-2">
            <Dialog.Close asChild>
              <button type="button" className="rounded border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100">
                Keep as is
              </button>
            </Dialog.Close>
            <button
              type="button"
              onClick={() => {
                onConfirm();
                onOpenChange(false);
              }}
              className={`rounded px-3 py-1.5 text-sm font-medium text-white ${
                destructive ? 'bg-red-700 hover:bg-red-800' : 'bg-indigo-600 hover:bg-indigo-700'
              }`}
            >
              {confirm}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
