/** PostgreSQL unique_violation (SQLSTATE 23505): a name or key already taken. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}
