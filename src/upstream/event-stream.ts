/** Whether a response's headers announce a server-sent event stream. */
export function isEventStream(headers: Record<string, string | string[] | undefined>): boolean {
  const ct = headers['content-type'];
  return typeof ct === 'string' && ct.startsWith('text/event-stream');
}
