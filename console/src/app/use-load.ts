import { useCallback, useEffect, useState, type DependencyList } from 'react';
import { describeError } from './api';

export interface Loaded<T> {
  data: T | undefined;
  /** The failure in words (describeError), or null. */
  error: string | null;
  loading: boolean;
  /** Loads again (after a change the page made). */
  reload(): void;
}

/**
 * Runs an async load when the page mounts and whenever `deps` change; keeps the last data while reloading.
 * A load that finishes after the page moved on is ignored.
 */
export function useLoad<T>(load: () => Promise<T>, deps: DependencyList): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!current) return;
        setError(describeError(failure));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, loading, reload };
}
