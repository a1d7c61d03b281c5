import { useId, useState, type ReactNode } from 'react';
import { Button, Dialog, Heading, Input, Label, Modal, ModalOverlay, TextField } from 'react-aria-components';

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

/**
 * A destructive action behind a dialog. With `typed`, the person must type that text first
 * (account deletion).
 */
export function ConfirmButton(props: {
  label: string;
  /** A longer name for assistive technology, starting with the label. */ accessibleName?: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  typed?: string;
  pending?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const ready = !props.typed || typed === props.typed;
  return (
    <>
      <Button className="danger" aria-label={props.accessibleName} onPress={() => setOpen(true)}>
        {props.label}
      </Button>
      <ModalOverlay isOpen={open} onOpenChange={setOpen} isDismissable className="overlay">
        <Modal className="modal">
          <Dialog role="alertdialog" className="dialog">
            <Heading slot="title">{props.title}</Heading>
            {props.children}
            {props.typed && (
              <TextField value={typed} onChange={setTyped} autoFocus>
                <Label>
                  Type <strong>{props.typed}</strong> to confirm
                </Label>
                <Input autoComplete="off" />
              </TextField>
            )}
            <div className="row">
              <Button onPress={() => setOpen(false)} autoFocus={!props.typed}>
                Cancel
              </Button>
              <Button
                className="danger"
                isDisabled={!ready || props.pending}
                onPress={async () => {
                  await props.onConfirm();
                  setOpen(false);
                }}
              >
                {props.confirmLabel}
              </Button>
            </div>
          </Dialog>
        </Modal>
      </ModalOverlay>
    </>
  );
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleDateString('en', { year: 'numeric', month: 'short', day: 'numeric' });
}

export const ADAPTERS = ['adapter_one', 'adapter_two', 'adapter_three'] as const;
export const ADAPTER_LABELS: Record<string, string> = {
  adapter_one: 'adapter_one (Claude Code)',
  adapter_two: 'adapter_two (Cursor)',
  adapter_three: 'adapter_three (other clients)',
};

/** "1 deployment", "2 deployments". */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * A button that says why it cannot be pressed: with a reason it is disabled and the reason is shown
 * beside it and read with it (aria-describedby).
 */
export function ReasonButton(props: {
  children: ReactNode;
  reason: string | null;
  pending?: boolean;
  type?: 'submit' | 'button';
  className?: string;
  onPress?: () => void;
}) {
  const id = useId();
  const disabled = !!props.reason || !!props.pending;
  return (
    <span className="reason-button">
      <Button
        type={props.type ?? 'button'}
        className={props.className}
        isDisabled={disabled}
        onPress={props.onPress}
        aria-describedby={props.reason ? id : undefined}
      >
        {props.children}
      </Button>
      {props.reason && (
        <span id={id} className="hint">
          {props.reason}
        </span>
      )}
    </span>
  );
}
