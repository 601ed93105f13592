import { stopStack } from '../support/local-stack.ts'; // loaded by Jest through CommonJS, so the real file name

export default async function globalTeardown(): Promise<void> {
  const stack = globalThis.__GLS_STACK__;
  if (stack) await stopStack(stack, { removeData: true });
}
