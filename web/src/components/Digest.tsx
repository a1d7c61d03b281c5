import { useState } from 'react';
import { Button } from 'react-aria-components';

/** How many hex digits of a digest the short form shows (as Git shows a commit). */
const SHORT = 12;

/**
 * A content digest (`sha256:<hex>`) in its short form, the full digest on hover and in the copy
 * button's clipboard: what a reviewer compares with what their agent is served.
 */
export function Digest({ digest }: { digest: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const [algorithm, hex = ''] = digest.split(':');
  return (
    <span className="digest">
      <code title={digest}>
        {algorithm}:{hex.slice(0, SHORT)}
      </code>{' '}
      <Button
        className="link-button"
        aria-label={`Copy the content digest ${digest}`}
        onPress={() =>
          navigator.clipboard.writeText(digest).then(
            () => setCopied('yes'),
            () => setCopied('no'),
          )
        }
      >
        Copy
      </Button>
      <span role="status" className="hint">
        {copied === 'yes' ? ' Copied.' : copied === 'no' ? ' Copying was refused by the browser: hover to read the digest.' : ''}
      </span>
    </span>
  );
}
