import { ConnectorError, type Connector, type SourceConfig } from './connector.js';
import { rssConnector } from './rss/rss.connector.js';
import { mispConnector } from './misp/misp.connector.js';
import { mispFeedConnector } from './misp/misp-feed.connector.js';
import { taxiiConnector } from './taxii/taxii.connector.js';
import { osvConnector } from './osv/osv.connector.js';
import { kevConnector } from './kev/kev.connector.js';
import { epssConnector } from './epss/epss.connector.js';
import { nvdConnector } from './nvd/nvd.connector.js';
import { csafConnector } from './csaf/csaf.connector.js';

/** The connector that fetches a source of this kind (loaded lazily by the sync job: sync.jobs.ts). */
export function connectorFor(source: Pick<SourceConfig, 'kind' | 'apiType'>): Connector {
  if (source.kind === 'rss') return rssConnector;
  switch (source.apiType) {
    case 'misp':
      return mispConnector;
    case 'misp_feed':
      return mispFeedConnector;
    case 'taxii':
      return taxiiConnector;
    case 'osv':
      return osvConnector;
    case 'cisa_kev':
      return kevConnector;
    case 'epss':
      return epssConnector;
    case 'nvd':
      return nvdConnector;
    case 'csaf':
      return csafConnector;
    default:
      throw new ConnectorError(`Unsupported apiType ${String(source.apiType)}`);
  }
}
