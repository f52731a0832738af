// An ISR page rendered on demand and kept an hour: the render's pid and time show who rendered it.
export const revalidate = 3600
export const dynamicParams = true
export async function generateStaticParams() {
  return []
}

export default async function Product({ params }) {
  const { id } = await params
  return <p id="rendered">{`product ${id} rendered by ${process.pid} at ${Date.now()}`}</p>
}
