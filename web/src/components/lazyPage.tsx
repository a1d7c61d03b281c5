import { Component, lazy, type ComponentType, type ReactNode } from 'react';
import { Button } from 'react-aria-components';

/**
 * A page's code is a chunk of its own, loaded when the page is opened. A chunk that fails to load
 * (the connection dropped, the service refused it, a new build replaced it) is said in words with a
 * retry, never a blank page: the failure is kept out of React's cache so the retry loads it again.
 */
class ChunkLoadError extends Error {}

export function lazyPage<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): ComponentType<P> {
  const make = () =>
    lazy(() =>
      load().catch((error: unknown) => {
        // React keeps a lazy component's failure for good: the next render gets a fresh one.
        Lazy = make();
        throw new ChunkLoadError(error instanceof Error ? error.message : String(error));
      }),
    );
  let Lazy = make();
  return function Page(props: P) {
    return <Lazy {...props} />;
  };
}

interface BoundaryProps {
  /** Changes when the page changes, so leaving a broken page forgets the failure. */
  resetKey: string;
  children: ReactNode;
}

/** Shows "lost connection, retry" when a page's code cannot be loaded, and any other failure in words. */
export class PageBoundary extends Component<BoundaryProps, { error: Error | null; resetKey: string }> {
  state = { error: null as Error | null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  static getDerivedStateFromProps(props: BoundaryProps, state: { resetKey: string; error: Error | null }) {
    return props.resetKey !== state.resetKey ? { resetKey: props.resetKey, error: null } : null;
  }

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    const chunk = error instanceof ChunkLoadError;
    return (
      <div className="notice notice-error" role="alert">
        <strong>{chunk ? 'Lost the connection to the service' : 'This page failed'}</strong>
        <p>
          {chunk
            ? 'The page’s code could not be loaded. Check your connection and retry; nothing you did was lost.'
            : 'Something in this page went wrong. Retry, or reload the page.'}
        </p>
        <Button onPress={() => this.setState({ error: null })}>Retry</Button>
      </div>
    );
  }
}
