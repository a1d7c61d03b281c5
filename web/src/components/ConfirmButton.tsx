import { useState, type ReactNode } from 'react';
import { Button, Dialog, Heading, Input, Label, Modal, ModalOverlay, TextField } from 'react-aria-components';

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
