import { Button } from 'react-aria-components';
import { useMutation, useQuery } from '../api';
import { ApiKeys } from '../components/ApiKeys';
import { AuditLog } from '../components/AuditLog';
import { ConnectedApps } from '../components/ConnectedApps';
import { DisplayName } from '../components/DisplayName';
import { SignInMethods } from '../components/SignInMethods';
import { ErrorNotice } from '../components/ErrorNotice';
import { ConfirmButton } from '../components/ConfirmButton';
import { formatDate, plural } from '../format';
import { graphql } from '../gql';
import type { BillingPrice } from '../gql/graphql';

const AccountQuery = graphql(`
  query Account {
    me {
      userId
      email
      displayName
      plan
      createdAt
      workflowCount
      deploymentCount
      subscriptionCount
      limits {
        requestsPerMinute
        requestsPerHour
      }
      usage {
        workflows {
          used
          limit
        }
        deployments {
          used
          limit
        }
        subscriptions {
          used
          limit
        }
        connections {
          used
          limit
        }
        apiKeys {
          used
          limit
        }
      }
      billing {
        status
        currentPeriodEnd
        cancelAtPeriodEnd
        customerId
      }
    }
    billingPrices
  }
`);
const Checkout = graphql(`
  mutation Checkout($priceId: BillingPrice!, $successUrl: String!, $cancelUrl: String!) {
    createCheckoutSession(priceId: $priceId, successUrl: $successUrl, cancelUrl: $cancelUrl) {
      checkoutUrl
    }
  }
`);
const Portal = graphql(`
  mutation BillingPortal($returnUrl: String) {
    createBillingPortalSession(returnUrl: $returnUrl) {
      portalUrl
    }
  }
`);
const DeleteMe = graphql(`
  mutation DeleteAccount {
    deleteMe {
      deleted
    }
  }
`);

const QUOTAS = [
  ['workflows', 'Workflows'],
  ['deployments', 'Deployments'],
  ['subscriptions', 'Subscriptions'],
  ['connections', 'Connections this month'],
  ['apiKeys', 'API keys'],
] as const;

const UPGRADES: { price: BillingPrice; label: string }[] = [
  { price: 'pro_monthly', label: 'Pro, monthly' },
  { price: 'pro_annual', label: 'Pro, yearly' },
  { price: 'team_monthly', label: 'Team, monthly' },
  { price: 'team_annual', label: 'Team, yearly' },
];

export default function Account() {
  const { data, error, reload } = useQuery(AccountQuery);
  const checkout = useMutation(Checkout);
  const portal = useMutation(Portal);
  const remove = useMutation(DeleteMe);
  if (error && !data) return <ErrorNotice error={error} onRetry={reload} />;
  if (!data) return <p aria-live="polite">Loading…</p>;
  const me = data.me;
  const here = `${window.location.origin}/account`;
  // Only what this service can sell: none when billing is not configured.
  const upgrades = UPGRADES.filter((u) => data.billingPrices.includes(u.price));

  return (
    <>
      <h1>Account</h1>
      <p className="lead">
        {me.email} · member since {formatDate(me.createdAt)}
      </p>
      <DisplayName current={me.displayName ?? null} />
      <SignInMethods />
      <section aria-labelledby="plan">
        <h2 id="plan">
          Plan: <span className="plan">{me.plan}</span>
        </h2>
        <p className="hint">
          {me.limits.requestsPerMinute} requests per minute, {me.limits.requestsPerHour} per hour. Billing status: {me.billing.status}
          {me.billing.currentPeriodEnd
            ? `, ${me.billing.cancelAtPeriodEnd ? 'ends' : 'renews'} ${formatDate(me.billing.currentPeriodEnd)}`
            : ''}
          .
        </p>
        <dl className="quotas">
          {QUOTAS.map(([key, label]) => {
            const q = me.usage[key];
            const unlimited = q.limit < 0 || q.limit >= 2_000_000_000;
            return (
              <div key={key} className="quota">
                <dt>{label}</dt>
                <dd>
                  {unlimited ? (
                    `${q.used} (no limit)`
                  ) : (
                    <>
                      <meter
                        min={0}
                        max={q.limit}
                        value={q.used}
                        high={q.limit * 0.8}
                        optimum={0}
                        aria-label={`${label}: ${q.used} of ${q.limit}`}
                      />
                      {q.used} of {q.limit}
                    </>
                  )}
                </dd>
              </div>
            );
          })}
        </dl>
        {(checkout.error ?? portal.error) && <ErrorNotice error={(checkout.error ?? portal.error)!} />}
        <h3>Upgrade</h3>
        {upgrades.length === 0 && (
          <p className="hint">Billing is not set up on this service, so plans cannot be bought here: its operator sets them.</p>
        )}
        <div className="row">
          {upgrades.map((u) => (
            <Button
              key={u.price}
              isDisabled={checkout.pending}
              onPress={async () => {
                const session = await checkout.run({ priceId: u.price, successUrl: `${here}?upgraded=1`, cancelUrl: here });
                if (session) window.location.assign(session.createCheckoutSession.checkoutUrl);
              }}
            >
              {u.label}
            </Button>
          ))}
        </div>
        {me.billing.customerId && (
          <p>
            <Button
              className="secondary"
              isDisabled={portal.pending}
              onPress={async () => {
                const session = await portal.run({ returnUrl: here });
                if (session) window.location.assign(session.createBillingPortalSession.portalUrl);
              }}
            >
              Manage billing
            </Button>
          </p>
        )}
      </section>
      <ApiKeys onChange={reload} />
      <ConnectedApps />
      <section aria-labelledby="security-log">
        <h2 id="security-log">Security log</h2>
        <p className="hint">What happened to your account: API keys made and revoked, applications disconnected, sign-ins.</p>
        <AuditLog />
      </section>
      <section aria-labelledby="delete-account">
        <h2 id="delete-account">Delete account</h2>
        {remove.error && <ErrorNotice error={remove.error} />}
        <ConfirmButton
          label="Delete account"
          title="Delete your account for good?"
          confirmLabel="Delete my account"
          typed="delete my account"
          pending={remove.pending}
          onConfirm={async () => {
            if (await remove.run({})) window.location.assign('/sign-in?signed_out=1');
          }}
        >
          <p>This deletes, with no way back:</p>
          <ul>
            <li>{plural(me.workflowCount, 'workflow')} with all their versions</li>
            <li>{plural(me.deploymentCount, 'deployment')} (their endpoints stop answering)</li>
            <li>{plural(me.subscriptionCount, 'subscription')} in your library</li>
            <li>{plural(me.usage.apiKeys.used, 'API key')} (IDEs using them are cut off)</li>
            <li>
              your reviews, usage history and billing records{me.plan !== 'free' ? '; your paid subscription is cancelled first' : ''}
            </li>
          </ul>
        </ConfirmButton>
      </section>
    </>
  );
}
