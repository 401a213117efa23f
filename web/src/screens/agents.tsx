import { useAgentList } from '../api/agents';
import { Link, useSearch } from '../router';
import { useSession } from '../session';
import { Badge, Loadable, ManagedByCode, Page, Pager, Time, pageOf, DataTable } from '../ui';

export default function Agents() {
  const [search] = useSearch();
  const page = pageOf(search);
  const { can } = useSession();
  const agents = useAgentList({ limit: 50, offset: (page - 1) * 50 });
  return (
    <Page title="Agents" actions={can('agent.create') && <Link className="button" to="/agents/new">New agent</Link>}>
      <Loadable query={agents} isEmpty={(d) => d.agents.length === 0} empty="No agents yet.">
        {(d) => (
          <>
            <DataTable head={<><th scope="col">Agent</th><th scope="col">Type</th><th scope="col">Model</th><th scope="col">Tools</th><th scope="col">Updated</th></>}>
              {d.agents.map((a) => (
                <tr key={a.id}>
                  <td><Link to={`/agents/${a.id}`}>{a.name}</Link> <ManagedByCode resource={a} /><div className="muted small">{a.description}</div></td>
                  <td><Badge value={a.agentType} /></td>
                  <td className="mono">{a.modelAlias}</td>
                  <td>{a.toolNames.length}</td>
                  <td><Time at={a.updatedAt} /></td>
                </tr>
              ))}
            </DataTable>
            <Pager page={page} perPage={50} total={d.totalCount} />
          </>
        )}
      </Loadable>
    </Page>
  );
}
