import { createContext, useContext } from 'react';

export interface SignedInUser {
  userId: string;
  email?: string | null;
  plan: string;
}

export const ViewerContext = createContext<SignedInUser | null>(null);

export function useViewer(): SignedInUser {
  const viewer = useContext(ViewerContext);
  if (!viewer) throw new Error('useViewer outside the signed-in layout');
  return viewer;
}
