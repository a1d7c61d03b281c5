import { useEffect, useState } from 'react';
import { Input, Label, SearchField, ToggleButton, ToggleButtonGroup } from 'react-aria-components';
import { Link } from 'wouter';
import { useQuery } from '../api';
import { CheckResult } from '../components/CheckResult';
import { ErrorNotice } from '../components/ErrorNotice';
import { plural } from '../format';
import { graphql } from '../gql';
import type { MarketplaceCardFragment, MarketplaceSort } from '../gql/graphql';

// A marketplace card, as every list of the page shows it.
graphql(`
  fragment MarketplaceCard on MarketplaceWorkflow {
    workflowId
    name
    description
    category
    owner {
      handle
    }
    stats {
      subscribers
      forks
      rating
      ratingCount
    }
    check {
      status
      summary
    }
  }
`);

const BrowseQuery = graphql(`
  query MarketplaceBrowse($sort: MarketplaceSort) {
    marketplaceFeatured {
      data {
        ...MarketplaceCard
      }
    }
    marketplace(sort: $sort, limit: 30) {
      data {
        ...MarketplaceCard
      }
    }
  }
`);
const SearchQuery = graphql(`
  query MarketplaceSearch($q: String!) {
    marketplaceSearch(q: $q, limit: 30) {
      data {
        ...MarketplaceCard
      }
    }
  }
`);

type Card = MarketplaceCardFragment;

function Cards({ items, label, empty = 'Nothing here yet.' }: { items: Card[]; label: string; empty?: React.ReactNode }) {
  if (items.length === 0) return <p className="empty">{empty}</p>;
  return (
    <ul className="cards" aria-label={label}>
      {items.map((w) => (
        <li key={w.workflowId} className="card">
          <h3>
            <Link href={`/marketplace/${w.workflowId}`}>{w.name}</Link>
          </h3>
          <p className="hint">by {w.owner.handle}</p>
          <p>{w.description}</p>
          <p className="hint">
            {plural(w.stats.subscribers, 'subscriber')} ·{' '}
            {w.stats.ratingCount ? `${w.stats.rating.toFixed(1)} ★ (${w.stats.ratingCount})` : 'no ratings yet'}
          </p>
          <CheckResult check={w.check} label={`Publishing check of ${w.name}`} />
        </li>
      ))}
    </ul>
  );
}

/** Searches once typing pauses, so every keystroke does not become a request. */
function useDebounced(value: string, ms: number): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

export default function Marketplace() {
  const [sort, setSort] = useState<MarketplaceSort>('popular');
  const [text, setText] = useState('');
  const q = useDebounced(text.trim(), 250);
  const searching = /[\p{L}\p{N}]/u.test(q);
  const browse = useQuery(BrowseQuery, { sort });
  const search = useQuery(SearchQuery, { q }, { skip: !searching });

  return (
    <>
      <h1>Marketplace</h1>
      <SearchField value={text} onChange={setText} className="search">
        <Label>Search public workflows</Label>
        <Input placeholder="e.g. review, migration, tests" />
      </SearchField>
      {searching ? (
        <section aria-labelledby="results">
          <h2 id="results">Results for “{q}”</h2>
          {search.error && <ErrorNotice error={search.error} onRetry={search.reload} />}
          {search.loading && <p aria-live="polite">Searching…</p>}
          {search.data && (
            <Cards
              items={search.data.marketplaceSearch.data}
              label="Search results"
              empty={
                <>
                  No public workflow matches “{q}”. Try fewer or other words (a name, a tag, a category), or clear the search to browse. A
                  workflow just published can take up to 5 minutes to appear.
                </>
              }
            />
          )}
        </section>
      ) : (
        <>
          {browse.error && <ErrorNotice error={browse.error} onRetry={browse.reload} />}
          {browse.data && (
            <>
              <section aria-labelledby="featured">
                <h2 id="featured">Featured</h2>
                <Cards items={browse.data.marketplaceFeatured.data} label="Featured workflows" />
              </section>
              <section aria-labelledby="browse">
                <h2 id="browse">Browse</h2>
                <ToggleButtonGroup
                  aria-label="Sort by"
                  selectionMode="single"
                  disallowEmptySelection
                  selectedKeys={[sort]}
                  onSelectionChange={(keys) => setSort([...keys][0] as MarketplaceSort)}
                >
                  <ToggleButton id="popular">Popular</ToggleButton>
                  <ToggleButton id="recent">Recent</ToggleButton>
                  <ToggleButton id="rating">Top rated</ToggleButton>
                </ToggleButtonGroup>
                <Cards items={browse.data.marketplace.data} label="All public workflows" />
              </section>
            </>
          )}
        </>
      )}
    </>
  );
}
