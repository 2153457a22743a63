'use client';
/**
 * Text that is code or key material, kept exactly as typed: a monospace, multi-line field with spell checking off.
 * Used for the console, dotfiles, the bootstrap script and SSH keys; `MONO` is the one monospace stack of the UI.
 */
import TextField, { type TextFieldProps } from '@mui/material/TextField';

export const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';

export type CodeFieldProps = Omit<TextFieldProps, 'value' | 'onChange' | 'multiline' | 'slotProps'> & {
  value: string;
  onChange: (value: string) => void;
  /** Further attributes of the <textarea>, e.g. a test id or autoComplete. */
  textareaProps?: Record<string, unknown>;
  fontSize?: number;
};

export function CodeField({ value, onChange, textareaProps, fontSize = 13, ...props }: CodeFieldProps) {
  return (
    <TextField
      multiline
      value={value}
      onChange={(e) => onChange(e.target.value)}
      slotProps={{ htmlInput: { spellCheck: false, ...textareaProps, style: { fontFamily: MONO, fontSize } } }}
      {...props}
    />
  );
}
