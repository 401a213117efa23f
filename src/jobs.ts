// The job catalog is assembled from the module manifests by the composition root.
export { buildJobCatalog, type JobDeps } from './composition.js';
