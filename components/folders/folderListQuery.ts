/**
 * The folder list's path (its SWR key): shared by the browser's hook (./useFolders) and the page's server render
 * (app/(dashboard)/folders/page.tsx), which reads it with the user's keys so the HTML already holds the rows. No
 * 'use client': the server reads it.
 */
export const FOLDER_LIST = '/folders';
