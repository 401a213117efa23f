// The service's event bus is assembled from the module manifests by the composition root.
export { serviceEvents } from './composition.js';
