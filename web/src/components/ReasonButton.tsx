import { useId, type ReactNode } from 'react';
import { Button } from 'react-aria-components';

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
