import { useSearch, Link } from '../router';
import { Loadable, Page, Pager, Select, pageOf } from '../ui';
import { useApproval, useApprovals } from '../api/approvals';
import { ApprovalCard, type Approval } from './approval-card';

const PER_PAGE = 20;
const STATUSES: Array<Approval['status']> = ['pending', 'approved', 'denied', 'expired', 'executing', 'executed', 'failed', 'outcome_unknown'];

/**
 * The Approvals queue (docs/approvals.md#in-the-console): pending requests first (the default
 * filter), newest first as the API lists them; `?status=` picks another status and `any` lists
 * them all. Each request is decided in place.
 */
export default function Approvals() {
  const [search, set] = useSearch();
  const page = pageOf(search);
  const chosen = search.get('status') ?? 'pending';
  const status = chosen === 'any' ? undefined : (chosen as Approval['status']);
  const list = useApprovals({ ...(status ? { status } : {}), limit: PER_PAGE, offset: (page - 1) * PER_PAGE });
  return (
    <Page title="Approvals">
      <p className="muted">Tool calls of agents waiting for a person. Approving runs the call once, with exactly the arguments shown; denying gives the model your comment.</p>
      <div className="filters">
        <Select label="Status" value={chosen === 'any' ? '' : chosen} any="Any" options={STATUSES} onChange={(v) => set({ status: v || 'any' })} />
      </div>
      <Loadable query={list} isEmpty={(d) => d.approvals.length === 0} empty={status === 'pending' ? 'No request waits for a decision.' : 'No approval request with this status.'}>
        {(d) => (
          <>
            <h2 className="sr-only">{status ? `${status.replaceAll('_', ' ')} requests` : 'All requests'}</h2>
            <div className="cards">{d.approvals.map((a) => <ApprovalCard key={a.id} a={a} />)}</div>
            <Pager page={page} perPage={PER_PAGE} total={d.totalCount} />
          </>
        )}
      </Loadable>
    </Page>
  );
}

/** One request's own page (`/approvals/{id}`): the link Slack, Teams, webhook and PagerDuty messages carry. */
export function ApprovalView({ params }: { params: Record<string, string> }) {
  const approval = useApproval(params.id!);
  return (
    <Page title="Approval request" actions={<Link to="/approvals">Back to the queue</Link>}>
      <Loadable query={approval}>{(a) => <ApprovalCard a={a} linkTitle={false} />}</Loadable>
    </Page>
  );
}
