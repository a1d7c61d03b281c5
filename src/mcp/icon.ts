/** The service's icon (a plan: three connected steps), inline so that clients fetch nothing from elsewhere. */
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#1f4e79"/>' +
  '<path d="M18 20h14M32 20v24M32 44h14" stroke="#fff" stroke-width="4" fill="none"/>' +
  '<circle cx="16" cy="20" r="6" fill="#fff"/><circle cx="32" cy="32" r="6" fill="#9fd3ff"/><circle cx="48" cy="44" r="6" fill="#fff"/></svg>';
export const SERVER_ICONS = [
  { src: `data:image/svg+xml;base64,${Buffer.from(ICON_SVG).toString('base64')}`, mimeType: 'image/svg+xml', sizes: ['any'] },
];
