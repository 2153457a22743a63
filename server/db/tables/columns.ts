/** Column kinds shared by the table row types (Kysely's select / insert / update views of a column). */
import type { ColumnType } from 'kysely';

/** A jsonb column: read as T, written as its JSON text (see json() in ../index). */
export type Json<T> = ColumnType<T, string, string>;
/** A nullable jsonb column, absent on insert. */
export type OptionalJson<T> = ColumnType<T | null, string | null | undefined, string | null>;
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type Defaulted<T> = ColumnType<T, T | undefined, T>;
/** A nullable timestamp column. */
export type OptionalTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export type Slots = Record<string, string>;
