'use client';
/** The "Search by name" box above a paged list: a new search starts again at the first page. */
import TextField from '@mui/material/TextField';

export function SearchField({ value, onChange, onPage }: { value: string; onChange: (value: string) => void; onPage: (page: number) => void }) {
  return (
    <TextField
      size="small"
      label="Search by name"
      value={value}
      onChange={(e) => {
        onChange(e.target.value);
        onPage(0);
      }}
    />
  );
}
