'use client';
/**
 * A confirmation for consequential actions (freeze, delete, leave, terminate). The action runs inside the dialog:
 * it stays open with the manager's problem shown when the action fails, and closes when it succeeds.
 */
import type { ReactNode } from 'react';
import { FormDialog } from './FormDialog';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** Red confirm button for destructive actions. */
  danger?: boolean;
  /** Disables the confirm button (e.g. until a typed confirmation matches). */
  confirmDisabled?: boolean;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}

export function ConfirmDialog({ open, title, children, confirmLabel, danger, confirmDisabled, onConfirm, onClose }: ConfirmDialogProps) {
  return (
    <FormDialog
      open={open}
      title={title}
      submitLabel={confirmLabel}
      danger={danger}
      submitDisabled={confirmDisabled}
      maxWidth="sm"
      onSubmit={async () => {
        await onConfirm();
        onClose();
      }}
      onClose={onClose}
    >
      {children}
    </FormDialog>
  );
}
