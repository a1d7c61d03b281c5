import { useState } from 'react';
import { Button } from 'react-aria-components';

/** A block of text to copy as is, with a copy button that says when it worked. */
export function CopyBlock({ label, text }: { label: string; text: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <div className="copy-block">
      <pre aria-label={label} tabIndex={0}>
        <code>{text}</code>
      </pre>
      <Button
        onPress={() =>
          navigator.clipboard.writeText(text).then(
            () => setCopied('yes'),
            () => setCopied('no'),
          )
        }
      >
        Copy {label}
      </Button>
      <span role="status" className="hint">
        {copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Copying was refused by the browser: select the text and copy it.' : ''}
      </span>
    </div>
  );
}
