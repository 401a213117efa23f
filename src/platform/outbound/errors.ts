/** Why an outbound call failed. Messages are safe to show users: no header values, no secrets. */
export type OutboundErrorCode =
  | 'forbidden_address'
  | 'unsupported_protocol'
  | 'timeout'
  | 'response_too_large'
  | 'too_many_redirects'
  | 'network'
  | 'dns'
  | 'aborted';

export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
    readonly url: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}
