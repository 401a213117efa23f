/**
 * Classification stage of the intel pipeline: pure functions over an item's text and metadata.
 * See each module for its documented rules.
 */
export {
  catalogFromJson,
  catalogFromStixObjects,
  catalogToJson,
  EMPTY_CATALOG,
  isCatalogEmpty,
  sortTactics,
  TACTICS,
  tacticName,
  withdrawnIdsFromStixObjects,
  type AttackCatalog,
  type AttackCatalogJson,
  type CatalogGroup,
  type CatalogSoftware,
  type CatalogTechnique,
} from './attack-catalog.fns.js';
export {
  classifyText,
  type AttackEntry,
  type Classification,
  type ClassifiedPassage,
  type ClassifyInput,
  type FrameworkMapping,
  type NamedThreat,
} from './classify.fns.js';
export { signalsFromTags, type TagSignals } from './classify-tags.fns.js';
export { parseCpe, type CpeName } from './cpe.fns.js';
export { cvss2BaseScore, cvss3BaseScore, cvssFromText, type CvssFinding } from './cvss.fns.js';
export { PLATFORMS, platformFromAttack, platformsFromText, type Platform } from './platforms.fns.js';
export { affectedProductsFrom, type AffectedProduct, type ProductsInput } from './products.fns.js';
export {
  isExactPassage,
  mergePassages,
  passageAround,
  passageRef,
  splitSentences,
  type CharSpan,
  type Passage,
  type Sentence,
} from './sentences.fns.js';
export { SEVERITIES, severityFromCvss, severityOf, type Severity, type SeverityInput, type SeverityResult } from './severity.fns.js';
export { summarize, type Summary } from './summarize.fns.js';
export { parseVersionList } from './versions.fns.js';
