import { z } from 'zod';

/**
 * ATT&CK Navigator layer file format 4.5 (mitre-attack/attack-navigator layers/spec/v4.5/layerformat.md),
 * field by field: what GET …/navigator-layer answers and what POST …/navigator-layer accepts.
 * Unknown fields of an imported layer are kept as they came (the stored layer is given back unchanged).
 */
const Hex = z.string().regex(/^#?[0-9a-fA-F]{3,8}$/, 'must be a hexadecimal RGB colour (#ff6666)');
const Divider = z.object({ divider: z.boolean() });
const Metadata = z.union([z.object({ name: z.string().max(500), value: z.string().max(5000) }), Divider]);
const Link = z.union([z.object({ label: z.string().max(500), url: z.string().max(2000).regex(/^[a-z][a-z0-9+.-]*:\/\//i, "must start with a protocol ('https://')") }), Divider]);

export const LayerTechnique = z.looseObject({
  techniqueID: z.string().regex(/^T\d{4}(\.\d{3})?$/, 'must be T#### or T####.###'),
  tactic: z.string().max(100).optional().describe('Tactic shortname; absent: the annotation shows under every tactic of the technique'),
  comment: z.string().max(10_000).optional(),
  enabled: z.boolean().optional(),
  score: z.number().optional(),
  color: z.union([Hex, z.literal('')]).optional(),
  metadata: z.array(Metadata).max(100).optional(),
  links: z.array(Link).max(100).optional(),
  showSubtechniques: z.boolean().optional(),
});

export const NavigatorLayer = z
  .looseObject({
    name: z.string().trim().min(1).max(200),
    versions: z.looseObject({
      attack: z.string().max(20).optional(),
      navigator: z.string().max(20),
      layer: z.string().regex(/^4\.\d+$/, 'layer format 4.x'),
    }).optional(),
    description: z.string().max(10_000).optional(),
    domain: z.enum(['enterprise-attack', 'mobile-attack', 'ics-attack']),
    customDataURL: z.string().max(2000).optional(),
    filters: z.looseObject({ platforms: z.array(z.string().max(100)).max(50).optional() }).optional(),
    sorting: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]).optional(),
    layout: z.looseObject({
      layout: z.enum(['side', 'flat', 'mini']).optional(),
      showID: z.boolean().optional(),
      showName: z.boolean().optional(),
      showAggregateScores: z.boolean().optional(),
      countUnscored: z.boolean().optional(),
      aggregateFunction: z.enum(['average', 'min', 'max', 'sum']).optional(),
      expandedSubtechniques: z.enum(['none', 'all', 'annotated']).optional(),
    }).optional(),
    hideDisabled: z.boolean().optional(),
    techniques: z.array(LayerTechnique).max(10_000).optional(),
    gradient: z.object({ colors: z.array(Hex).min(2).max(20), minValue: z.number(), maxValue: z.number() })
      .refine((g) => g.maxValue > g.minValue, { message: 'maxValue must be greater than minValue', path: ['maxValue'] }).optional(),
    legendItems: z.array(z.object({ label: z.string().max(500), color: Hex })).max(100).optional(),
    showTacticRowBackground: z.boolean().optional(),
    tacticRowBackground: Hex.optional(),
    selectTechniquesAcrossTactics: z.boolean().optional(),
    selectSubtechniquesWithParent: z.boolean().optional(),
    selectVisibleTechniques: z.boolean().optional(),
    metadata: z.array(Metadata).max(100).optional(),
    links: z.array(Link).max(100).optional(),
  })
  .meta({ id: 'NavigatorLayer', description: 'An ATT&CK Navigator layer (format 4.5)' });
export type NavigatorLayerDto = z.infer<typeof NavigatorLayer>;

export const LayerView = z.enum(['coverage', 'intel', 'gaps']);
