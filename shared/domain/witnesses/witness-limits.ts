/**
 * Longest witness vkey accepted: a key name of up to 200 characters, its key ID and the base64 key (type 0x04
 * keys are 33 bytes). Apart from the vkey parser so the request schema (and the CDK app through the route table)
 * does not load the signature code.
 */
export const MAX_WITNESS_VKEY_LENGTH = 300;
