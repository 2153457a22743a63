'use client';
/** Copies a text to the clipboard and says so; where the Clipboard API is unavailable (plain HTTP), says how to copy by hand. */
import { useState } from 'react';
import Button, { type ButtonProps } from '@mui/material/Button';
import Tooltip from '@mui/material/Tooltip';
import { ContentCopyIcon } from '@/components/frame/icons';

export function CopyButton({ text, label = 'Copy', size = 'small', variant = 'outlined' }: { text: string; label?: string; size?: ButtonProps['size']; variant?: ButtonProps['variant'] }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2500);
  }

  const tip = state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'The browser refused; select the text and copy it' : '';
  return (
    <Tooltip title={tip} open={state !== 'idle'} disableHoverListener disableFocusListener disableTouchListener>
      <Button size={size} variant={variant} startIcon={<ContentCopyIcon fontSize="small" />} onClick={() => void copy()}>
        {state === 'copied' ? 'Copied' : label}
      </Button>
    </Tooltip>
  );
}
