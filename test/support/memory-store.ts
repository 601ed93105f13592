import {
  ConditionalCheckFailedException,
  GetItemCommand,
  QueryCommand as RawQueryCommand,
  TransactionCanceledException,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Deps } from '../../shared/runtime/deps.js';
import { TABLES } from '../../shared/store/tables.js';
import { mockedStore } from './mocked-store.js';

/**
 * The mocked store (./mocked-store.ts) answered by two in-memory tables, `main` and `ledger`, with their indexes
 * as shared/store/tables.ts describes them, for unit tests of code that reads what it wrote (a whole verification
 * run, the ledger writer under it). It serves the commands the stores send (Get, Put, Update, Delete, Query and
 * TransactWrite of the document client; the low-level Query and GetItem the ledger reads use) and evaluates their
 * condition, key condition and update expressions as DynamoDB does for the forms the stores use; anything else
 * throws, so a test never passes on an expression the fake skipped. Reads are strongly consistent, indexes too.
 */
export function memoryStore(extra: Partial<Deps> = {}) {
  const { db, deps } = mockedStore(extra);
  const tables = new Map<string, Map<string, Item>>([
    ['main', new Map()],
    ['ledger', new Map()],
  ]);
  const tableOf = (name: string | undefined) => {
    const table = tables.get(name ?? '');
    if (!table) throw new Error(`No table ${name}`);
    return table;
  };
  const keyOf = (key: Record<string, unknown>) => `${String(key.pk)}\u0000${String(key.sk)}`;

  const get = (name: string | undefined, key: Record<string, unknown>) => tableOf(name).get(keyOf(key));

  /** One write's effect, once its condition held; the item as it was before. */
  const planWrite = (write: Write): { apply: () => void; old: Item | undefined } => {
    const { table, key } = write;
    const old = get(table, key);
    if (write.condition && !evaluateCondition(write.condition, old, write.names, write.values))
      throw new ConditionFailed(old);
    const apply = () => {
      if (write.kind === 'Put') tableOf(table).set(keyOf(key), structuredClone(write.item!));
      else if (write.kind === 'Delete') tableOf(table).delete(keyOf(key));
      else if (write.kind === 'Update')
        tableOf(table).set(
          keyOf(key),
          applyUpdate(write.update!, old ? structuredClone(old) : { ...key }, write.names, write.values),
        );
    };
    return { apply, old };
  };

  const single = (write: Write, returnOld = false) => {
    try {
      const { apply, old } = planWrite(write);
      apply();
      return returnOld && old ? { Attributes: structuredClone(old) } : {};
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      throw new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: {},
        ...(write.returnOldOnFailure && error.old ? { Item: marshall(error.old) } : {}),
      });
    }
  };

  db.on(GetCommand).callsFake((input: { TableName: string; Key: Item }) => {
    const item = get(input.TableName, input.Key);
    return item ? { Item: structuredClone(item) } : {};
  });
  db.on(GetItemCommand).callsFake((input: { TableName: string; Key: Record<string, AttributeValue> }) => {
    const item = get(input.TableName, unmarshall(input.Key));
    return item ? { Item: marshall(item, { removeUndefinedValues: true }) } : {};
  });
  db.on(PutCommand).callsFake((input: WriteInput) =>
    single(writeOf('Put', input), input.ReturnValues === 'ALL_OLD'),
  );
  db.on(UpdateCommand).callsFake((input: WriteInput) => {
    single(writeOf('Update', input));
    const item = get(input.TableName, input.Key!);
    return input.ReturnValues === 'ALL_NEW' && item ? { Attributes: structuredClone(item) } : {};
  });
  db.on(DeleteCommand).callsFake((input: WriteInput) => single(writeOf('Delete', input)));
  db.on(TransactWriteCommand).callsFake((input: TransactWriteCommandInput) => {
    const writes = (input.TransactItems ?? []).map((entry) => {
      if (entry.Put) return writeOf('Put', entry.Put as WriteInput);
      if (entry.Update) return writeOf('Update', entry.Update as WriteInput);
      if (entry.Delete) return writeOf('Delete', entry.Delete as WriteInput);
      return writeOf('ConditionCheck', entry.ConditionCheck as WriteInput);
    });
    const planned: ({ apply: () => void } | null)[] = writes.map((write) => {
      try {
        return planWrite(write);
      } catch (error) {
        if (error instanceof ConditionFailed) return null;
        throw error;
      }
    });
    if (planned.some((p) => p === null))
      throw new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: planned.map((p) => ({ Code: p ? 'None' : 'ConditionalCheckFailed' })),
      });
    for (const p of planned) p!.apply();
    return {};
  });
  db.on(QueryCommand).callsFake((input: QueryInput) => ({
    ...query(input, input.ExpressionAttributeValues),
  }));
  db.on(RawQueryCommand).callsFake((input: QueryInput) => {
    const values = unmarshall((input.ExpressionAttributeValues ?? {}) as Record<string, AttributeValue>);
    const page = query(input, values);
    return {
      Items: page.Items.map((item) => marshall(item, { removeUndefinedValues: true })),
      Count: page.Count,
    };
  });

  /** Every matching item, in key order (no paging: a test's tables are small), at most Limit. */
  function query(input: QueryInput, values: Record<string, unknown> = {}) {
    const table = TABLES.find((t) => t.name === input.TableName);
    if (!table) throw new Error(`No table ${input.TableName}`);
    const index = input.IndexName ? table.indexes.find((i) => i.indexName === input.IndexName) : undefined;
    if (input.IndexName && !index) throw new Error(`No index ${input.IndexName}`);
    const partitionKey = index ? index.partitionKey : table.partitionKey;
    const sortKey = index ? index.sortKey : table.sortKey;
    if (input.FilterExpression) throw new Error('FilterExpression is not served by the memory store');
    let items = [...tableOf(input.TableName).values()]
      .filter((item) => item[partitionKey] !== undefined && (!sortKey || item[sortKey] !== undefined))
      .filter((item) =>
        evaluateCondition(input.KeyConditionExpression!, item, input.ExpressionAttributeNames, values),
      )
      .sort((a, b) => compare(a[sortKey ?? partitionKey], b[sortKey ?? partitionKey]));
    if (input.ScanIndexForward === false) items.reverse();
    if (input.Limit !== undefined) items = items.slice(0, input.Limit);
    return { Items: items.map((item) => structuredClone(item)), Count: items.length };
  }

  return {
    db,
    deps,
    /** The stored item (a copy), as DynamoDB holds it: index attributes included. */
    item: (table: 'main' | 'ledger', key: { pk: string; sk: string }): Item | undefined => {
      const found = get(table, key);
      return found ? structuredClone(found) : undefined;
    },
    /** Puts an item as it is, without a condition (a fixture). */
    put: (table: 'main' | 'ledger', item: Item): void =>
      void tableOf(table).set(keyOf(item), structuredClone(item)),
  };
}

type Item = Record<string, unknown>;

interface WriteInput {
  TableName: string;
  Item?: Item;
  Key?: Item;
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
  ReturnValues?: string;
  ReturnValuesOnConditionCheckFailure?: string;
}

interface QueryInput {
  TableName: string;
  IndexName?: string;
  KeyConditionExpression?: string;
  FilterExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
  ScanIndexForward?: boolean;
  Limit?: number;
}

interface Write {
  kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
  table: string;
  key: Item;
  item?: Item;
  update?: string;
  condition?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
  returnOldOnFailure: boolean;
}

function writeOf(kind: Write['kind'], input: WriteInput): Write {
  const key = kind === 'Put' ? { pk: input.Item!.pk, sk: input.Item!.sk } : input.Key!;
  return {
    kind,
    table: input.TableName,
    key,
    item: input.Item,
    update: input.UpdateExpression,
    condition: input.ConditionExpression,
    names: input.ExpressionAttributeNames,
    values: input.ExpressionAttributeValues,
    returnOldOnFailure: input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD',
  };
}

class ConditionFailed extends Error {
  constructor(readonly old: Item | undefined) {
    super('condition failed');
  }
}

/* ---------------------------------------------------------------------------------------------------------------
 * Expressions: a tokenizer and a recursive-descent parser for the subset the stores use.
 * condition := or; or := and (OR and)*; and := not (AND not)*; not := NOT not | primary
 * primary := ( condition ) | function(...) | operand (= | <> | < | <= | > | >=) operand
 *          | operand BETWEEN operand AND operand | operand IN ( operand, ... )
 * operand := path | :value | size(path); path := name (. name | [n])*
 * update := (SET a = v (, a = v)* | REMOVE p (, p)* | ADD p :v (, p :v)*)+, v := operand ((+|-) operand)?
 *          | if_not_exists(path, operand) | list_append(operand, operand)
 * ------------------------------------------------------------------------------------------------------------- */

type Token = { kind: 'word' | 'name' | 'value' | 'number' | 'op'; text: string };

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const pattern =
    /\s*(?:(<=|>=|<>|[=<>(),.[\]+-])|(#[A-Za-z0-9_]+)|(:[A-Za-z0-9_]+)|(\d+)|([A-Za-z_][A-Za-z0-9_]*))/y;
  let at = 0;
  while (at < expression.length) {
    if (/^\s*$/.test(expression.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(expression);
    if (!match) throw new Error(`Cannot read expression at ${at}: ${expression}`);
    at = pattern.lastIndex;
    if (match[1]) tokens.push({ kind: 'op', text: match[1] });
    else if (match[2]) tokens.push({ kind: 'name', text: match[2] });
    else if (match[3]) tokens.push({ kind: 'value', text: match[3] });
    else if (match[4]) tokens.push({ kind: 'number', text: match[4] });
    else tokens.push({ kind: 'word', text: match[5]! });
  }
  return tokens;
}

type Path = (string | number)[];
type Operand = { path: Path } | { value: string } | { size: Path };

class Parser {
  private at = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly names: Record<string, string> = {},
  ) {}

  done(): boolean {
    return this.at >= this.tokens.length;
  }

  peek(text?: string): Token | undefined {
    const token = this.tokens[this.at];
    return text === undefined || token?.text.toUpperCase() === text.toUpperCase() ? token : undefined;
  }

  take(text?: string): Token {
    const token = this.tokens[this.at];
    if (!token || (text !== undefined && token.text.toUpperCase() !== text.toUpperCase()))
      throw new Error(`Expected ${text ?? 'a token'} at ${this.at}, found ${token?.text}`);
    this.at++;
    return token;
  }

  path(): Path {
    const first = this.take();
    const segment = (token: Token) => {
      if (token.kind === 'name') {
        const name = this.names[token.text];
        if (name === undefined) throw new Error(`No attribute name for ${token.text}`);
        return name;
      }
      if (token.kind !== 'word') throw new Error(`Not an attribute name: ${token.text}`);
      return token.text;
    };
    const path: Path = [segment(first)];
    for (;;) {
      if (this.peek('.')) {
        this.take('.');
        path.push(segment(this.take()));
      } else if (this.peek('[')) {
        this.take('[');
        path.push(Number(this.take().text));
        this.take(']');
      } else return path;
    }
  }

  operand(): Operand {
    const token = this.peek();
    if (token?.kind === 'value') return { value: this.take().text };
    if (token?.kind === 'word' && token.text === 'size' && this.tokens[this.at + 1]?.text === '(') {
      this.take();
      this.take('(');
      const path = this.path();
      this.take(')');
      return { size: path };
    }
    return { path: this.path() };
  }
}

function resolve(operand: Operand, item: Item | undefined, values: Record<string, unknown>): unknown {
  if ('value' in operand) {
    if (!(operand.value in values)) throw new Error(`No attribute value for ${operand.value}`);
    return values[operand.value];
  }
  if ('size' in operand) {
    const value = at(item, operand.size);
    if (typeof value === 'string' || Array.isArray(value)) return value.length;
    if (value instanceof Set) return value.size;
    if (value && typeof value === 'object') return Object.keys(value).length;
    return undefined;
  }
  return at(item, operand.path);
}

function at(item: Item | undefined, path: Path): unknown {
  let value: unknown = item;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') {
    // DynamoDB compares strings by their UTF-8 bytes.
    return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  }
  return Number.NaN;
}

const comparable = (a: unknown, b: unknown) =>
  a !== undefined &&
  b !== undefined &&
  typeof a === typeof b &&
  (typeof a === 'number' || typeof a === 'string');

function evaluateCondition(
  expression: string,
  item: Item | undefined,
  names: Record<string, string> | undefined,
  values: Record<string, unknown> = {},
): boolean {
  const parser = new Parser(tokenize(expression), names);
  const result = or();
  if (!parser.done()) throw new Error(`Unread rest of condition: ${expression}`);
  return result;

  function or(): boolean {
    let value = and();
    while (parser.peek('OR')) {
      parser.take();
      const right = and();
      value = value || right;
    }
    return value;
  }
  function and(): boolean {
    let value = not();
    while (parser.peek('AND')) {
      parser.take();
      const right = not();
      value = value && right;
    }
    return value;
  }
  function not(): boolean {
    if (parser.peek('NOT')) {
      parser.take();
      return !not();
    }
    return primary();
  }
  function primary(): boolean {
    if (parser.peek('(')) {
      parser.take('(');
      const value = or();
      parser.take(')');
      return value;
    }
    const token = parser.peek();
    if (
      token?.kind === 'word' &&
      ['attribute_exists', 'attribute_not_exists', 'begins_with'].includes(token.text)
    ) {
      parser.take();
      parser.take('(');
      const path = parser.path();
      if (token.text === 'begins_with') {
        parser.take(',');
        const prefix = resolve(parser.operand(), item, values);
        parser.take(')');
        const value = at(item, path);
        return typeof value === 'string' && typeof prefix === 'string' && value.startsWith(prefix);
      }
      parser.take(')');
      const exists = at(item, path) !== undefined;
      return token.text === 'attribute_exists' ? exists : !exists;
    }
    const left = resolve(parser.operand(), item, values);
    const op = parser.take().text.toUpperCase();
    if (op === 'BETWEEN') {
      const low = resolve(parser.operand(), item, values);
      parser.take('AND');
      const high = resolve(parser.operand(), item, values);
      return (
        comparable(left, low) && comparable(left, high) && compare(left, low) >= 0 && compare(left, high) <= 0
      );
    }
    if (op === 'IN') {
      parser.take('(');
      const options = [resolve(parser.operand(), item, values)];
      while (parser.peek(',')) {
        parser.take(',');
        options.push(resolve(parser.operand(), item, values));
      }
      parser.take(')');
      return options.some((option) => equal(left, option));
    }
    const right = resolve(parser.operand(), item, values);
    switch (op) {
      case '=':
        return equal(left, right);
      case '<>':
        return left !== undefined && right !== undefined && !equal(left, right);
      case '<':
        return comparable(left, right) && compare(left, right) < 0;
      case '<=':
        return comparable(left, right) && compare(left, right) <= 0;
      case '>':
        return comparable(left, right) && compare(left, right) > 0;
      case '>=':
        return comparable(left, right) && compare(left, right) >= 0;
      default:
        throw new Error(`Unknown comparison ${op} in ${expression}`);
    }
  }
}

function equal(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function applyUpdate(
  expression: string,
  item: Item,
  names: Record<string, string> | undefined,
  values: Record<string, unknown> = {},
): Item {
  const parser = new Parser(tokenize(expression), names);
  while (!parser.done()) {
    const clause = parser.take().text.toUpperCase();
    do {
      if (parser.peek(',')) parser.take(',');
      if (clause === 'SET') {
        const path = parser.path();
        parser.take('=');
        setAt(item, path, value());
      } else if (clause === 'REMOVE') {
        removeAt(item, parser.path());
      } else if (clause === 'ADD') {
        const path = parser.path();
        const delta = resolve(parser.operand(), item, values);
        const current = at(item, path);
        if (typeof delta !== 'number')
          throw new Error('ADD of a non-number is not served by the memory store');
        setAt(item, path, (typeof current === 'number' ? current : 0) + delta);
      } else throw new Error(`Unknown update clause ${clause} in ${expression}`);
    } while (parser.peek(','));
  }
  return item;

  function value(): unknown {
    const token = parser.peek();
    if (token?.kind === 'word' && (token.text === 'if_not_exists' || token.text === 'list_append')) {
      parser.take();
      parser.take('(');
      if (token.text === 'if_not_exists') {
        const path = parser.path();
        parser.take(',');
        const fallback = resolve(parser.operand(), item, values);
        parser.take(')');
        const current = at(item, path);
        return structuredClone(current === undefined ? fallback : current);
      }
      const first = resolve(parser.operand(), item, values);
      parser.take(',');
      const second = resolve(parser.operand(), item, values);
      parser.take(')');
      return [...(first as unknown[]), ...(second as unknown[])];
    }
    const left = resolve(parser.operand(), item, values);
    if (parser.peek('+') || parser.peek('-')) {
      const sign = parser.take().text === '+' ? 1 : -1;
      const right = resolve(parser.operand(), item, values);
      return (left as number) + sign * (right as number);
    }
    return structuredClone(left);
  }
}

function setAt(item: Item, path: Path, value: unknown): void {
  let target: Record<string | number, unknown> = item;
  for (const segment of path.slice(0, -1)) {
    const next = target[segment];
    if (next === null || typeof next !== 'object') throw new Error(`No map at ${path.join('.')}`);
    target = next as Record<string | number, unknown>;
  }
  target[path.at(-1)!] = value;
}

function removeAt(item: Item, path: Path): void {
  let target: unknown = item;
  for (const segment of path.slice(0, -1)) {
    if (target === null || typeof target !== 'object') return;
    target = (target as Record<string | number, unknown>)[segment];
  }
  if (target !== null && typeof target === 'object')
    delete (target as Record<string | number, unknown>)[path.at(-1)!];
}
