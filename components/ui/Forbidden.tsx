'use client';
/** The 403 state of a page the signed-in user's role may not open. */
import NextLink from 'next/link';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import { LockIcon } from '@/components/frame/icons';
import { EmptyState } from './feedback';

export function Forbidden({ need, role }: { need: 'admin' | 'superadmin'; role: string }) {
  const who = need === 'superadmin' ? 'superadministrators' : 'administrators';
  return (
    <Card variant="outlined" data-testid="forbidden">
      <CardContent>
        <EmptyState
          icon={<LockIcon sx={{ fontSize: 40 }} />}
          title="You do not have access to this page"
          action={
            <Button component={NextLink} href="/" variant="outlined">
              Back to the summary
            </Button>
          }
        >
          This page is for {who} (403). You are signed in with the role “{role}”. Ask an administrator if you need it.
        </EmptyState>
      </CardContent>
    </Card>
  );
}
