import { hideBareUrls, MaskBuilder, type Masker } from './mask.ts';
export const maskMarkdown: Masker = (source) => {
  const m = new MaskBuilder(source);
  hideBareUrls(m);
  return m.build();
};
export const maskMdx = maskMarkdown;
