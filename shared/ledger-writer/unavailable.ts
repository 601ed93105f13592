import { isTransientFault } from '../adapters/transient-faults.js';
import { DependencyUnavailableError } from '../errors.js';

/**
 * True when a call's error means the dependency did not answer in time or failed transiently: the call may or may
 * not have taken effect. The ledger writer then finds out instead of answering an error (issue 32: an append whose
 * commit succeeded is never answered with an error).
 */
export function isUnavailable(error: unknown): boolean {
  return error instanceof DependencyUnavailableError || isTransientFault(error);
}
