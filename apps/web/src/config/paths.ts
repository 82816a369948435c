/** Paths the app links to outside the route table's own ids. */
export const paths = {
  home: '/',
  login: '/login',
  register: '/register',
  cookies: '/legal/cookies',
  privacy: '/legal/privacy',
  terms: '/legal/terms',
} as const;
