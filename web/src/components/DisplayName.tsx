import { useState } from 'react';
import { Form, Input, Label, TextField } from 'react-aria-components';
import { useMutation } from '../api';
import { lengthProblem, TEXT_LIMITS } from '../rules';
import { graphql } from '../gql';
import { ErrorNotice } from './ErrorNotice';
import { ReasonButton } from './ReasonButton';

const SetDisplayName = graphql(`
  mutation SetDisplayName($displayName: String!) {
    setDisplayName(displayName: $displayName) {
      displayName
    }
  }
`);

/** The public name shown as the author of one's workflows and reviews (never the e-mail address). */
export function DisplayName({ current }: { current: string | null }) {
  const [name, setName] = useState(current ?? '');
  const [saved, setSaved] = useState<string | null>(null);
  const save = useMutation(SetDisplayName);
  const unchanged = name.trim() === (current ?? '');
  return (
    <section aria-labelledby="public-name">
      <h2 id="public-name">Public name</h2>
      <p className="hint">Shown as the author of your public workflows and your reviews. Left empty, a pseudonym is shown.</p>
      <Form
        className="row"
        onSubmit={async (e) => {
          e.preventDefault();
          setSaved(null);
          const result = await save.run({ displayName: name });
          if (result)
            setSaved(result.setDisplayName.displayName ? `Shown as “${result.setDisplayName.displayName}”.` : 'A pseudonym is shown.');
        }}
      >
        <TextField value={name} onChange={setName}>
          <Label>Display name</Label>
          <Input autoComplete="name" />
        </TextField>
        <ReasonButton
          type="submit"
          pending={save.pending}
          reason={lengthProblem('The name', name, TEXT_LIMITS.displayName) ?? (unchanged && !saved ? 'Nothing changed yet.' : null)}
        >
          Save name
        </ReasonButton>
      </Form>
      {save.error && <ErrorNotice error={save.error} />}
      <p role="status">{saved}</p>
    </section>
  );
}
