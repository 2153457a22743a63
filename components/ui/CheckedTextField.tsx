'use client';
/**
 * A text field with its problem: shown once the person typed something or tried to send the form, so a fresh
 * form does not open in red; until then (or when all is well) the helper text says what to enter.
 */
import TextField, { type TextFieldProps } from '@mui/material/TextField';

export type CheckedTextFieldProps = Omit<TextFieldProps, 'error'> & {
  value: string;
  problem: string | null | undefined;
  /** True after a first attempt to send: every problem shows, typed or not. Left out: a form whose button waits for valid fields. */
  submitted?: boolean;
};

export function CheckedTextField({ value, problem, submitted, helperText = ' ', ...props }: CheckedTextFieldProps) {
  const shown = (submitted || value) && problem ? problem : null;
  return <TextField {...props} value={value} error={Boolean(shown)} helperText={shown ?? helperText} />;
}
