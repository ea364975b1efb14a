import { hideBareUrls, MaskBuilder, type Masker } from './mask.ts';
export const maskAsciidoc: Masker = (source) => {
  const m = new MaskBuilder(source);
  hideBareUrls(m);
  return m.build();
};
