import type { Subscriptions } from '../../platform/events.js';
import { raiseHuntAlert, recedeHuntAlert } from './hunt-alerts.adapter.js';

/**
 * Hunt's subscriptions (over alerts' front door: hunt-alerts.adapter.ts): a qualified threat
 * raises its hunt alert; a threat whose exposure fell lets it recede.
 */
export const huntSubscriptions: Subscriptions = {
  'threat.alert_qualified': (tx, input, events) => raiseHuntAlert(tx, input, events),
  'threat.alert_receded': (tx, input, events) => recedeHuntAlert(tx, input, events),
};
