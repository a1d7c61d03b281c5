import { useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { signInUrl, type ApiError } from '../api';

/** The service's message as a sentence. */
function sentence(text: string): string {
  const t = text.trim();
  return t ? `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}` : t;
}

/** An error in words a person understands, with what to do next. */
export function ErrorNotice({ error, onRetry }: { error: ApiError; onRetry?: () => void }) {
  const [wait, setWait] = useState(error.retryAfter ?? 0);
  useEffect(() => {
    setWait(error.retryAfter ?? 0);
    if (!error.retryAfter) return;
    const timer = setInterval(() => setWait((w) => Math.max(0, w - 1)), 1000);
    return () => clearInterval(timer);
  }, [error]);

  let title = 'Something went wrong';
  let body: React.ReactNode = sentence(error.message);
  let action: React.ReactNode = onRetry ? <Button onPress={onRetry}>Try again</Button> : null;
  switch (error.code) {
    case 'UNAUTHORIZED':
      title = 'You are signed out';
      body = `${sentence(error.message)} What you typed on this page stays here until you leave it.`;
      action = (
        <a className="button" href={signInUrl()}>
          Sign in again
        </a>
      );
      break;
    case 'PLAN_LIMIT_EXCEEDED':
      // The service's message names the plan, the limit and what is used.
      title = 'Your plan’s limit is reached';
      action = (
        <a className="button" href="/account">
          See plans and upgrade
        </a>
      );
      break;
    case 'RATE_LIMITED':
      title = 'Too many requests';
      body = wait > 0 ? `The service asks to wait ${wait} s before retrying.` : 'You can retry now.';
      action = onRetry ? (
        <Button isDisabled={wait > 0} onPress={onRetry}>
          Retry
        </Button>
      ) : null;
      break;
    case 'VALIDATION_ERROR':
      title = 'Please check what you entered';
      break;
    case 'NETWORK':
      title = 'No connection to the service';
      break;
    case 'NOT_FOUND':
      // Retrying cannot make it appear.
      title = 'Not found';
      action = null;
      break;
    case 'FORBIDDEN':
      title = 'Not allowed';
      action = null;
      break;
  }
  return (
    <div className="notice notice-error" role="alert">
      <strong>{title}</strong>
      <p>{body}</p>
      {action}
    </div>
  );
}
