// A local ESLint rule (STYLE.md): in apps/web/src, a feature imports another feature only through
// app/ routes, and never imports app/ itself. Relative imports are resolved against the importing file.
import path from 'node:path';

const SRC = path.resolve('apps/web/src');
const FEATURES = path.join(SRC, 'features');

function featureOf(file) {
  const rel = path.relative(FEATURES, file);
  return rel.startsWith('..') ? null : rel.split(path.sep)[0];
}

export default {
  rules: {
    'feature-boundaries': {
      meta: {
        type: 'problem',
        schema: [],
        messages: {
          sibling: 'A feature imports another feature only through app/ routes ({{from}} → {{to}}).',
          app: 'Features do not import app/.',
        },
      },
      create(context) {
        const file = path.resolve(context.filename);
        const own = featureOf(file);
        if (!own) return {};
        return {
          ImportDeclaration(node) {
            const source = node.source.value;
            if (typeof source !== 'string' || !source.startsWith('.')) return;
            const target = path.resolve(path.dirname(file), source);
            const other = featureOf(target);
            if (other && other !== own)
              context.report({ node, messageId: 'sibling', data: { from: own, to: other } });
            else if (!path.relative(path.join(SRC, 'app'), target).startsWith('..'))
              context.report({ node, messageId: 'app' });
          },
        };
      },
    },
  },
};
