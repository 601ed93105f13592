/**
 * The PLATFORM_WITNESSES setting (issue 31): platform-wide witnesses every firm's checkpoints are submitted to.
 * Kept apart from the vkey parser so that the CDK app checks the setting's shape without loading the note code.
 */

export class PlatformWitnessesFormatError extends Error {
  override name = 'PlatformWitnessesFormatError';
}

/** A platform-wide witness from the operator's configuration (PLATFORM_WITNESSES). */
export interface ConfiguredWitness {
  vkey: string;
  url: string;
}

/**
 * The PLATFORM_WITNESSES format: entries separated by commas or newlines, each `<vkey> <submission prefix URL>`
 * (whitespace between them; a comma inside a URL must be written %2C). Empty: none.
 */
export function parsePlatformWitnesses(text: string): ConfiguredWitness[] {
  return text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const parts = entry.split(/\s+/);
      if (parts.length !== 2)
        throw new PlatformWitnessesFormatError(`platform witness "${entry}": expected "<vkey> <url>"`);
      return { vkey: parts[0]!, url: parts[1]! };
    });
}
